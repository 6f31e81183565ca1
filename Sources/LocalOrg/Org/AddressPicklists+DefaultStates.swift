/// The states of the ten countries that have them in a new org with State and Country/Territory
/// Picklists (AU, BR, CA, CN, IE, IN, IT, JP, MX, US), active ones only, as Salesforce ships them
/// in 2026; beside the countries in AddressPicklists+Defaults.swift. Lines: `country<TAB>state<TAB>label`.
extension AddressPicklists {
    static let defaultStates = """
        AU	ACT	Australian Capital Territory
        AU	NSW	New South Wales
        AU	NT	Northern Territory
        AU	QLD	Queensland
        AU	SA	South Australia
        AU	TAS	Tasmania
        AU	VIC	Victoria
        AU	WA	Western Australia
        BR	AC	Acre
        BR	AL	Alagoas
        BR	AM	Amazonas
        BR	AP	Amapá
        BR	BA	Bahia
        BR	CE	Ceará
        BR	DF	Distrito Federal
        BR	ES	Espírito Santo
        BR	GO	Goiás
        BR	MA	Maranhão
        BR	MG	Minas Gerais
        BR	MS	Mato Grosso do Sul
        BR	MT	Mato Grosso
        BR	PA	Pará
        BR	PB	Paraíba
        BR	PE	Pernambuco
        BR	PI	Piauí
        BR	PR	Paraná
        BR	RJ	Rio de Janeiro
        BR	RN	Rio Grande do Norte
        BR	RO	Rondônia
        BR	RR	Roraima
        BR	RS	Rio Grande do Sul
        BR	SC	Santa Catarina
        BR	SE	Sergipe
        BR	SP	São Paulo
        BR	TO	Tocantins
        CA	AB	Alberta
        CA	BC	British Columbia
        CA	MB	Manitoba
        CA	NB	New Brunswick
        CA	NL	Newfoundland and Labrador
        CA	NS	Nova Scotia
        CA	NT	Northwest Territories
        CA	NU	Nunavut
        CA	ON	Ontario
        CA	PE	Prince Edward Island
        CA	QC	Quebec
        CA	SK	Saskatchewan
        CA	YT	Yukon Territories
        CN	11	Beijing
        CN	12	Tianjin
        CN	13	Hebei
        CN	14	Shanxi
        CN	15	Nei Mongol
        CN	21	Liaoning
        CN	22	Jilin
        CN	23	Heilongjiang
        CN	31	Shanghai
        CN	32	Jiangsu
        CN	33	Zhejiang
        CN	34	Anhui
        CN	35	Fujian
        CN	36	Jiangxi
        CN	37	Shandong
        CN	41	Henan
        CN	42	Hubei
        CN	43	Hunan
        CN	44	Guangdong
        CN	45	Guangxi
        CN	46	Hainan
        CN	50	Chongqing
        CN	51	Sichuan
        CN	52	Guizhou
        CN	53	Yunnan
        CN	54	Xizang
        CN	61	Shaanxi
        CN	62	Gansu
        CN	63	Qinghai
        CN	64	Ningxia
        CN	65	Xinjiang
        CN	71	Taiwan
        CN	91	Hong Kong
        CN	92	Macao
        IE	CE	Clare
        IE	CN	Cavan
        IE	CO	Cork
        IE	CW	Carlow
        IE	D	Dublin
        IE	DL	Donegal
        IE	G	Galway
        IE	KE	Kildare
        IE	KK	Kilkenny
        IE	KY	Kerry
        IE	LD	Longford
        IE	LH	Louth
        IE	LK	Limerick
        IE	LM	Leitrim
        IE	LS	Laois
        IE	MH	Meath
        IE	MN	Monaghan
        IE	MO	Mayo
        IE	OY	Offaly
        IE	RN	Roscommon
        IE	SO	Sligo
        IE	TA	Tipperary
        IE	WD	Waterford
        IE	WH	Westmeath
        IE	WW	Wicklow
        IE	WX	Wexford
        IN	AN	Andaman and Nicobar Islands
        IN	AP	Andhra Pradesh
        IN	AR	Arunachal Pradesh
        IN	AS	Assam
        IN	BR	Bihar
        IN	CH	Chandigarh
        IN	CT	Chhattisgarh
        IN	DD	Daman and Diu
        IN	DL	Delhi
        IN	DN	Dadra and Nagar Haveli
        IN	GA	Goa
        IN	GJ	Gujarat
        IN	HP	Himachal Pradesh
        IN	HR	Haryana
        IN	JH	Jharkhand
        IN	JK	Jammu and Kashmir
        IN	KA	Karnataka
        IN	KL	Kerala
        IN	LD	Lakshadweep
        IN	MH	Maharashtra
        IN	ML	Meghalaya
        IN	MN	Manipur
        IN	MP	Madhya Pradesh
        IN	MZ	Mizoram
        IN	NL	Nagaland
        IN	OR	Odisha
        IN	PB	Punjab
        IN	PY	Puducherry
        IN	RJ	Rajasthan
        IN	SK	Sikkim
        IN	TG	Telangana
        IN	TN	Tamil Nadu
        IN	TR	Tripura
        IN	UP	Uttar Pradesh
        IN	UT	Uttarakhand
        IN	WB	West Bengal
        IT	AG	Agrigento
        IT	AL	Alessandria
        IT	AN	Ancona
        IT	AO	Aosta
        IT	AP	Ascoli Piceno
        IT	AQ	L'Aquila
        IT	AR	Arezzo
        IT	AT	Asti
        IT	AV	Avellino
        IT	BA	Bari
        IT	BG	Bergamo
        IT	BI	Biella
        IT	BL	Belluno
        IT	BN	Benevento
        IT	BO	Bologna
        IT	BR	Brindisi
        IT	BS	Brescia
        IT	BT	Barletta-Andria-Trani
        IT	BZ	Bolzano
        IT	CA	Cagliari
        IT	CB	Campobasso
        IT	CE	Caserta
        IT	CH	Chieti
        IT	CI	Carbonia-Iglesias
        IT	CL	Caltanissetta
        IT	CN	Cuneo
        IT	CO	Como
        IT	CR	Cremona
        IT	CS	Cosenza
        IT	CT	Catania
        IT	CZ	Catanzaro
        IT	EN	Enna
        IT	FC	Forlì-Cesena
        IT	FE	Ferrara
        IT	FG	Foggia
        IT	FI	Florence
        IT	FM	Fermo
        IT	FR	Frosinone
        IT	GE	Genoa
        IT	GO	Gorizia
        IT	GR	Grosseto
        IT	IM	Imperia
        IT	IS	Isernia
        IT	KR	Crotone
        IT	LC	Lecco
        IT	LE	Lecce
        IT	LI	Livorno
        IT	LO	Lodi
        IT	LT	Latina
        IT	LU	Lucca
        IT	MB	Monza and Brianza
        IT	MC	Macerata
        IT	ME	Messina
        IT	MI	Milan
        IT	MN	Mantua
        IT	MO	Modena
        IT	MS	Massa and Carrara
        IT	MT	Matera
        IT	NA	Naples
        IT	NO	Novara
        IT	NU	Nuoro
        IT	OG	Ogliastra
        IT	OR	Oristano
        IT	OT	Olbia-Tempio
        IT	PA	Palermo
        IT	PC	Piacenza
        IT	PD	Padua
        IT	PE	Pescara
        IT	PG	Perugia
        IT	PI	Pisa
        IT	PN	Pordenone
        IT	PO	Prato
        IT	PR	Parma
        IT	PT	Pistoia
        IT	PU	Pesaro and Urbino
        IT	PV	Pavia
        IT	PZ	Potenza
        IT	RA	Ravenna
        IT	RC	Reggio Calabria
        IT	RE	Reggio Emilia
        IT	RG	Ragusa
        IT	RI	Rieti
        IT	RM	Rome
        IT	RN	Rimini
        IT	RO	Rovigo
        IT	SA	Salerno
        IT	SI	Siena
        IT	SO	Sondrio
        IT	SP	La Spezia
        IT	SR	Syracuse
        IT	SS	Sassari
        IT	SV	Savona
        IT	TA	Taranto
        IT	TE	Teramo
        IT	TN	Trento
        IT	TO	Turin
        IT	TP	Trapani
        IT	TR	Terni
        IT	TS	Trieste
        IT	TV	Treviso
        IT	UD	Udine
        IT	VA	Varese
        IT	VB	Verbano-Cusio-Ossola
        IT	VC	Vercelli
        IT	VE	Venice
        IT	VI	Vicenza
        IT	VR	Verona
        IT	VS	Medio Campidano
        IT	VT	Viterbo
        IT	VV	Vibo Valentia
        JP	01	Hokkaido
        JP	02	Akita
        JP	03	Iwate
        JP	04	Miyagi
        JP	05	Aichi
        JP	06	Yamagata
        JP	07	Fukushima
        JP	08	Ibaraki
        JP	09	Tochigi
        JP	10	Gunma
        JP	11	Saitama
        JP	12	Chiba
        JP	13	Tokyo
        JP	14	Kanagawa
        JP	15	Niigata
        JP	16	Toyama
        JP	17	Ishikawa
        JP	18	Fukui
        JP	19	Yamanashi
        JP	20	Nagano
        JP	21	Gifu
        JP	22	Shizuoka
        JP	23	Aomori
        JP	24	Mie
        JP	25	Shiga
        JP	26	Kyoto
        JP	27	Osaka
        JP	28	Hyogo
        JP	29	Nara
        JP	30	Wakayama
        JP	31	Tottori
        JP	32	Shimane
        JP	33	Okayama
        JP	34	Hiroshima
        JP	35	Yamaguchi
        JP	36	Tokushima
        JP	37	Kagawa
        JP	38	Ehime
        JP	39	Kochi
        JP	40	Fukuoka
        JP	41	Saga
        JP	42	Nagasaki
        JP	43	Kumamoto
        JP	44	Oita
        JP	45	Miyazaki
        JP	46	Kagoshima
        JP	47	Okinawa
        MX	AG	Aguascalientes
        MX	BC	Baja California
        MX	BS	Baja California Sur
        MX	CH	Chihuahua
        MX	CL	Colima
        MX	CM	Campeche
        MX	CO	Coahuila
        MX	CS	Chiapas
        MX	DF	Federal District
        MX	DG	Durango
        MX	GR	Guerrero
        MX	GT	Guanajuato
        MX	HG	Hidalgo
        MX	JA	Jalisco
        MX	ME	Mexico State
        MX	MI	Michoacán
        MX	MO	Morelos
        MX	NA	Nayarit
        MX	NL	Nuevo León
        MX	OA	Oaxaca
        MX	PB	Puebla
        MX	QE	Querétaro
        MX	QR	Quintana Roo
        MX	SI	Sinaloa
        MX	SL	San Luis Potosí
        MX	SO	Sonora
        MX	TB	Tabasco
        MX	TL	Tlaxcala
        MX	TM	Tamaulipas
        MX	VE	Veracruz
        MX	YU	Yucatán
        MX	ZA	Zacatecas
        US	AK	Alaska
        US	AL	Alabama
        US	AR	Arkansas
        US	AZ	Arizona
        US	CA	California
        US	CO	Colorado
        US	CT	Connecticut
        US	DC	District of Columbia
        US	DE	Delaware
        US	FL	Florida
        US	GA	Georgia
        US	HI	Hawaii
        US	IA	Iowa
        US	ID	Idaho
        US	IL	Illinois
        US	IN	Indiana
        US	KS	Kansas
        US	KY	Kentucky
        US	LA	Louisiana
        US	MA	Massachusetts
        US	MD	Maryland
        US	ME	Maine
        US	MI	Michigan
        US	MN	Minnesota
        US	MO	Missouri
        US	MS	Mississippi
        US	MT	Montana
        US	NC	North Carolina
        US	ND	North Dakota
        US	NE	Nebraska
        US	NH	New Hampshire
        US	NJ	New Jersey
        US	NM	New Mexico
        US	NV	Nevada
        US	NY	New York
        US	OH	Ohio
        US	OK	Oklahoma
        US	OR	Oregon
        US	PA	Pennsylvania
        US	RI	Rhode Island
        US	SC	South Carolina
        US	SD	South Dakota
        US	TN	Tennessee
        US	TX	Texas
        US	UT	Utah
        US	VA	Virginia
        US	VT	Vermont
        US	WA	Washington
        US	WI	Wisconsin
        US	WV	West Virginia
        US	WY	Wyoming
        """
}
